package deltafifo

import "github.com/kfanout/fanout/internal/queueaccess"

// popped and poppedFunc are what the queues' keyed pop hands its consumer.
type (
	popped     = queueaccess.Popped[Delta]
	poppedFunc = queueaccess.Func[Delta]
)

// The informer reaches the keyed pop and tryLen of DeltaFIFO and RealFIFO
// through package queueaccess, so that they are not part of the queues'
// exported API.
func init() {
	queueaccess.Register(func(q any) (queueaccess.Access[Delta], bool) {
		switch q := q.(type) {
		case *DeltaFIFO:
			return queueaccess.Access[Delta]{Pop: q.popKeyed, TryLen: q.tryLen}, true
		case *RealFIFO:
			return queueaccess.Access[Delta]{Pop: q.popKeyed, TryLen: q.tryLen}, true
		}
		return queueaccess.Access[Delta]{}, false
	})
}
