package sharding

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The shard selector list option (metav1.ListOptions.ShardSelector) and the
// list metadata saying a server applied it (metav1.ListMeta.ShardInfo) first
// appear in apimachinery v0.36. The module builds against v0.35, the oldest
// supported release, so it reaches both by name in whatever apimachinery the
// program links: with v0.35 there is no selector to send, the server returns
// every object, and each range informer filters on the client.
var (
	shardSelectorField = fieldIndex(reflect.TypeFor[metav1.ListOptions](), "ShardSelector", reflect.String)
	shardInfoField     = fieldIndex(reflect.TypeFor[metav1.ListMeta](), "ShardInfo", reflect.Pointer)
)

// fieldIndex is the index of t's field name if it has kind, else nil.
func fieldIndex(t reflect.Type, name string, kind reflect.Kind) []int {
	f, ok := t.FieldByName(name)
	if !ok || f.Type.Kind() != kind {
		return nil
	}
	return f.Index
}

// linkedCanShard reports whether the linked apimachinery has the shard
// selector list option, so that requests can ask the server to filter.
func linkedCanShard() bool { return shardSelectorField != nil && shardInfoField != nil }

// setShardSelector sets options' shard selector where the linked
// apimachinery has one.
func setShardSelector(options *metav1.ListOptions, selector string) {
	if shardSelectorField == nil {
		return
	}
	reflect.ValueOf(options).Elem().FieldByIndex(shardSelectorField).SetString(selector)
}

// hasListMetaShardInfo reports whether lm says the server applied a shard
// selector.
func hasListMetaShardInfo(lm *metav1.ListMeta) bool {
	if shardInfoField == nil {
		return false
	}
	return !reflect.ValueOf(lm).Elem().FieldByIndex(shardInfoField).IsNil()
}
