package dotblank

import _ "k8s.io/client-go/tools/cache"
