package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
)

func TestSplitMetaNamespaceKey(t *testing.T) {
	tests := []struct {
		key      string
		ns, name string
		err      string
	}{
		{key: "", ns: "", name: ""},
		{key: "a", ns: "", name: "a"},
		{key: "a/b", ns: "a", name: "b"},
		{key: "/b", ns: "", name: "b"},
		{key: "a/", ns: "a", name: ""},
		{key: "a/b/c", err: `unexpected key format: "a/b/c"`},
		{key: "//", err: `unexpected key format: "//"`},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			ns, name, err := SplitMetaNamespaceKey(tc.key)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				assert.Equal(t, "", ns)
				assert.Equal(t, "", name)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ns, ns)
			assert.Equal(t, tc.name, name)
		})
	}
}

func TestObjectName(t *testing.T) {
	n := NewObjectName("ns", "a")
	assert.Equal(t, "ns/a", n.String())
	ns, name := n.Parts()
	assert.Equal(t, []string{"ns", "a"}, []string{ns, name})
	assert.Equal(t, types.NamespacedName{Namespace: "ns", Name: "a"}, n.AsNamespacedName())
	assert.Equal(t, n, NamespacedNameAsObjectName(n.AsNamespacedName()))
	assert.Equal(t, "a", NewObjectName("", "a").String())

	for _, s := range []string{"a", "ns/a"} {
		parsed, err := ParseObjectName(s)
		require.NoError(t, err)
		assert.Equal(t, s, parsed.String())
	}
	_, err := ParseObjectName("a/b/c")
	assert.EqualError(t, err, `unexpected key format: "a/b/c"`)
}

func TestObjectToName(t *testing.T) {
	got, err := ObjectToName(storePod("ns", "a", "1", nil))
	require.NoError(t, err)
	assert.Equal(t, ObjectName{Namespace: "ns", Name: "a"}, got)
	assert.Equal(t, ObjectName{Name: "n"}, MetaObjectToName(storePod("", "n", "", nil)))

	_, err = ObjectToName("not an object")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "object has no meta")

	got, err = DeletionHandlingObjectToName(DeletedFinalStateUnknown{Key: "ns/gone"})
	require.NoError(t, err)
	assert.Equal(t, ObjectName{Namespace: "ns", Name: "gone"}, got)
	got, err = DeletionHandlingObjectToName(storePod("x", "y", "", nil))
	require.NoError(t, err)
	assert.Equal(t, ObjectName{Namespace: "x", Name: "y"}, got)
}
