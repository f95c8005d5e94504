package decode

import (
	"bufio"
	"io"
	"sync"
)

// bufSize is the size of the reused read and write buffers of a filtered
// body.
const bufSize = 32 << 10

// maxObject is the largest object (list item, single object or watch
// frame) the filter holds to rewrite; a larger one passes through as it
// came, decoded in full.
const maxObject = 32 << 20

// filterFunc rewrites a response body from src to dst. It returns nil at
// the end of src, errMalformed when the bytes are not what it expects
// (after writing every byte it read, unchanged), or src's error.
type filterFunc func(src *source, dst *bufio.Writer) error

// filteredBody is a response body that a goroutine fills by running a
// filter over the original body. The goroutine belongs to the body: it
// exits at the end of the original body, on its error, or when the body
// is closed, and Close waits for it.
type filteredBody struct {
	pr   *io.PipeReader
	orig io.ReadCloser
	done chan struct{}
	once sync.Once
}

var (
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, bufSize) }}
	writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufSize) }}
)

// newFilteredBody starts filtering orig with f.
func newFilteredBody(orig io.ReadCloser, f filterFunc) *filteredBody {
	pr, pw := io.Pipe()
	b := &filteredBody{pr: pr, orig: orig, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		w := writerPool.Get().(*bufio.Writer)
		w.Reset(pw)
		r := readerPool.Get().(*bufio.Reader)
		// Whatever has been filtered is written out before the filter
		// waits for more input, so a watch event reaches the decoder as
		// soon as its last byte has arrived.
		r.Reset(flushingReader{orig, w})
		src := &source{r: r}
		err := f(src, w)
		switch err {
		case nil:
		case errMalformed:
			err = src.passThrough(w)
		default:
			// The original body ended or failed: what was read goes out
			// unchanged, then the same end or error.
			if cerr := src.commit(w); err == io.EOF {
				err = cerr
			}
		}
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		src.release()
		r.Reset(nil)
		readerPool.Put(r)
		w.Reset(nil)
		writerPool.Put(w)
		if err == nil || err == io.EOF {
			_ = pw.Close()
		} else {
			_ = pw.CloseWithError(err)
		}
	}()
	return b
}

// Read reads the filtered body.
func (b *filteredBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

// Close closes the original body and waits for the filter to stop.
func (b *filteredBody) Close() error {
	var err error
	b.once.Do(func() {
		err = b.orig.Close()
		_ = b.pr.Close()
		<-b.done
	})
	return err
}

// flushingReader flushes w before every read from r.
type flushingReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f flushingReader) Read(p []byte) (int, error) {
	if err := f.w.Flush(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}
