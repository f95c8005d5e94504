package decode

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// openWatch returns the filtered body of a watch whose original body is
// the pipe writer returned.
func openWatch(t *testing.T, mt string) (io.ReadCloser, *io.PipeWriter) {
	t.Helper()
	pr, pw := io.Pipe()
	rt := NewTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {mt + ";stream=watch"}}, Body: pr}, nil
	}), Options{DropManagedFields: true})
	resp, err := rt.RoundTrip(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/api/v1/pods", RawQuery: "watch=true"}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Body, pw
}

// TestWatchEventNotHeldBack: an event is readable as soon as its last
// byte arrived, while the stream stays open; closing the body ends the
// filter's goroutine (goleak checks).
func TestWatchEventNotHeldBack(t *testing.T) {
	for _, mt := range []string{protoType, jsonType} {
		body, pw := openWatch(t, mt)
		ev := watchBody(t, mt, watch.Event{Type: watch.Added, Object: samplePod("a")})
		go func() { _, _ = pw.Write(ev) }()
		var got []byte
		buf := make([]byte, 512)
		for {
			n, err := body.Read(buf)
			if err != nil {
				t.Fatalf("%s: %v", mt, err)
			}
			got = append(got, buf[:n]...)
			if evs, err := decodeWatch(mt, got); err == nil && len(evs) == 1 {
				if len(evs[0].Object.(*corev1.Pod).ManagedFields) != 0 {
					t.Fatalf("%s: managedFields decoded", mt)
				}
				break
			}
		}
		if err := body.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBodyError: an error of the original body reaches the reader after
// the bytes before it (unchanged, in protobuf).
func TestBodyError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, mt := range []string{protoType, jsonType} {
		body, pw := openWatch(t, mt)
		ev := watchBody(t, mt, watch.Event{Type: watch.Added, Object: samplePod("a")})
		go func() {
			_, _ = pw.Write(ev[:len(ev)/2])
			_ = pw.CloseWithError(boom)
		}()
		got, err := io.ReadAll(body)
		if !errors.Is(err, boom) {
			t.Fatalf("%s: error %v", mt, err)
		}
		if mt == protoType && string(got) != string(ev[:len(ev)/2]) {
			t.Fatalf("%s: %d bytes before the error, want the %d sent", mt, len(got), len(ev)/2)
		}
		_ = body.Close()
	}
}
