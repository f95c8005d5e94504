package informer

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectName names an object of a kind known from the context: a namespace
// (empty for cluster-scoped objects) and a name.
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName returns the ObjectName with the given parts.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// Parts returns the namespace and the name; it undoes NewObjectName.
func (n ObjectName) Parts() (namespace, name string) {
	return n.Namespace, n.Name
}

// String returns the store key of the name, the same string
// MetaNamespaceKeyFunc makes: "namespace/name", or "name" when the
// namespace is empty. (types.NamespacedName.String differs: it always
// writes the slash.)
func (n ObjectName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// AsNamespacedName returns the same name as a types.NamespacedName.
func (n ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
}

// ParseObjectName parses a string made by ObjectName.String, with the rules
// of SplitMetaNamespaceKey.
func ParseObjectName(str string) (ObjectName, error) {
	ns, name, err := SplitMetaNamespaceKey(str)
	return ObjectName{Namespace: ns, Name: name}, err
}

// NamespacedNameAsObjectName returns nn as an ObjectName.
func NamespacedNameAsObjectName(nn types.NamespacedName) ObjectName {
	return ObjectName{Namespace: nn.Namespace, Name: nn.Name}
}

// ObjectToName returns the name of obj, which must have object metadata
// (meta.Accessor must accept it); otherwise it returns an error that says
// "object has no meta".
func ObjectToName(obj any) (ObjectName, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ObjectName{}, fmt.Errorf("object has no meta: %v", err)
	}
	return MetaObjectToName(m), nil
}

// MetaObjectToName returns the name of obj.
func MetaObjectToName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// DeletionHandlingObjectToName is ObjectToName that also accepts a
// DeletedFinalStateUnknown, fanout's or client-go's (see
// AsDeletedFinalStateUnknown), whose Key it parses.
func DeletionHandlingObjectToName(obj any) (ObjectName, error) {
	if tomb, ok := AsDeletedFinalStateUnknown(obj); ok {
		return ParseObjectName(tomb.Key)
	}
	return ObjectToName(obj)
}

// SplitMetaNamespaceKey splits a key made by MetaNamespaceKeyFunc: "name"
// gives ("", "name"), "ns/name" gives ("ns", "name") and "" gives ("", "").
// A key with more than one slash is an error.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	first := strings.IndexByte(key, '/')
	if first < 0 {
		return "", key, nil
	}
	if strings.IndexByte(key[first+1:], '/') >= 0 {
		return "", "", fmt.Errorf("unexpected key format: %q", key)
	}
	return key[:first], key[first+1:], nil
}
