package dotblank

import _ "github.com/kfanout/fanout/informer"
