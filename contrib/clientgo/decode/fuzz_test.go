package decode

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Fuzz modes: what the body is.
const (
	fuzzProtoBody = iota
	fuzzProtoWatch
	fuzzJSONBody
	fuzzJSONWatch
	fuzzModes
)

// FuzzFilter feeds arbitrary bodies, read in chunks of any size, through
// the filter with DropManagedFields and checks, against client-go's
// decoder on the unfiltered body:
//   - protobuf: the filtered body has the same length and decodes exactly
//     as the model's output (managedFields removed the plain way, see
//     model_test.go) decodes: the same objects, or the same error;
//   - both codecs: when client-go decodes the body, the filtered body
//     decodes to the same objects less managedFields; JSON that is not
//     well formed fails with client-go's error. (Where client-go fails
//     only inside managedFields, the filtered body decodes, or fails
//     later: what is not decoded is not checked.)
func FuzzFilter(f *testing.F) {
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Pod{*samplePod("a"), *samplePod("b")}}
	events := []watch.Event{{Type: watch.Added, Object: samplePod("a")}, {Type: watch.Modified, Object: samplePod("b")}}
	for _, chunk := range []uint8{0, 1, 13} {
		f.Add(uint8(fuzzProtoBody), chunk, protoBody(f, list))
		f.Add(uint8(fuzzProtoBody), chunk, protoBody(f, samplePod("x")))
		f.Add(uint8(fuzzProtoWatch), chunk, watchBody(f, protoType, events...))
		f.Add(uint8(fuzzJSONBody), chunk, jsonBody(f, list))
		f.Add(uint8(fuzzJSONWatch), chunk, watchBody(f, jsonType, events...))
	}
	f.Add(uint8(fuzzJSONBody), uint8(3), []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"managedFields":[{"manager":1}],"name":"a"}}`))
	f.Add(uint8(fuzzJSONBody), uint8(3), []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","managedFields":[] "x":1}}`))
	o := Options{DropManagedFields: true}
	f.Fuzz(func(t *testing.T, mode, chunk uint8, in []byte) {
		size := int(chunk) + 1
		switch mode % fuzzModes {
		case fuzzProtoBody:
			out := mustFilter(t, o, protoType, false, in, size)
			if len(out) != len(in) {
				t.Fatalf("length %d, want %d", len(out), len(in))
			}
			got, gotErr := decodeBody(protoType, out)
			model, modelErr := decodeBody(protoType, modelBody(in))
			sameResult(t, "model", got, gotErr, model, modelErr)
			ref, refErr := decodeBody(protoType, in)
			againstClientGo(t, got, gotErr, ref, refErr, false)
		case fuzzProtoWatch:
			out := mustFilter(t, o, protoType+";stream=watch", true, in, size)
			if len(out) != len(in) {
				t.Fatalf("length %d, want %d", len(out), len(in))
			}
			got, gotErr := decodeWatch(protoType, out)
			model, modelErr := decodeWatch(protoType, modelWatch(in))
			sameEvents(t, got, gotErr, model, modelErr)
			ref, refErr := decodeWatch(protoType, in)
			againstClientGoEvents(t, got, gotErr, ref, refErr, false)
		case fuzzJSONBody:
			out := mustFilter(t, o, jsonType, false, in, size)
			got, gotErr := decodeBody(jsonType, out)
			ref, refErr := decodeBody(jsonType, in)
			againstClientGo(t, got, gotErr, ref, refErr, !json.Valid(in))
		case fuzzJSONWatch:
			out := mustFilter(t, o, jsonType, true, in, size)
			got, gotErr := decodeWatch(jsonType, out)
			ref, refErr := decodeWatch(jsonType, in)
			againstClientGoEvents(t, got, gotErr, ref, refErr, false)
		}
	})
}

func mustFilter(t *testing.T, o Options, ct string, watchReq bool, in []byte, size int) []byte {
	out, err := filter(t, o, ct, watchReq, in, size)
	if err != nil {
		t.Fatalf("reading the filtered body: %v", err)
	}
	return out
}

// withoutManagedFields returns a copy of obj (a list or an object)
// without managedFields.
func withoutManagedFields(obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	if meta.IsListType(obj) {
		_ = meta.EachListItem(obj, func(o runtime.Object) error {
			if m, err := meta.Accessor(o); err == nil {
				m.SetManagedFields(nil)
			}
			return nil
		})
		return obj
	}
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// sameResult fails unless both decodes gave equal objects or the same
// error.
func sameResult(t *testing.T, what string, got runtime.Object, gotErr error, want runtime.Object, wantErr error) {
	t.Helper()
	if errText(gotErr) != errText(wantErr) {
		t.Fatalf("error %q, %s's %q", errText(gotErr), what, errText(wantErr))
	}
	if gotErr == nil && !apiequality.Semantic.DeepEqual(got, want) {
		t.Fatalf("decoded %#v\n%s's %#v", got, what, want)
	}
}

// againstClientGo checks a filtered decode against client-go's decode of
// the unfiltered body. strictErr: client-go's error must be kept.
func againstClientGo(t *testing.T, got runtime.Object, gotErr error, ref runtime.Object, refErr error, strictErr bool) {
	t.Helper()
	switch {
	case refErr == nil:
		sameResult(t, "client-go's less managedFields", got, gotErr, withoutManagedFields(ref), nil)
	case strictErr:
		if errText(gotErr) != errText(refErr) {
			t.Fatalf("error %q, client-go's %q", errText(gotErr), errText(refErr))
		}
	}
}

// sameEvents fails unless both streams decoded to equal events and the
// same error.
func sameEvents(t *testing.T, got []watch.Event, gotErr error, want []watch.Event, wantErr error) {
	t.Helper()
	if errText(gotErr) != errText(wantErr) || len(got) != len(want) {
		t.Fatalf("%d events and error %q, model's %d and %q", len(got), errText(gotErr), len(want), errText(wantErr))
	}
	for i := range got {
		if got[i].Type != want[i].Type || !apiequality.Semantic.DeepEqual(got[i].Object, want[i].Object) {
			t.Fatalf("event %d: %v %#v, model's %v %#v", i, got[i].Type, got[i].Object, want[i].Type, want[i].Object)
		}
	}
}

// againstClientGoEvents checks filtered watch events against client-go's
// of the unfiltered stream: every event client-go decodes before its
// first error is decoded the same less managedFields.
func againstClientGoEvents(t *testing.T, got []watch.Event, gotErr error, ref []watch.Event, refErr error, strictErr bool) {
	t.Helper()
	if len(got) < len(ref) {
		t.Fatalf("%d events (error %q), client-go decodes %d (error %q)", len(got), errText(gotErr), len(ref), errText(refErr))
	}
	for i := range ref {
		want := withoutManagedFields(ref[i].Object)
		if got[i].Type != ref[i].Type || !apiequality.Semantic.DeepEqual(got[i].Object, want) {
			t.Fatalf("event %d: %v %#v, client-go's %v %#v", i, got[i].Type, got[i].Object, ref[i].Type, want)
		}
	}
	if refErr == nil && (gotErr != nil || len(got) != len(ref)) {
		t.Fatalf("%d events, error %q; client-go decodes %d, no error", len(got), errText(gotErr), len(ref))
	}
	if len(got) == len(ref) && strictErr && errText(gotErr) != errText(refErr) {
		t.Fatalf("error %q, client-go's %q", errText(gotErr), errText(refErr))
	}
}
