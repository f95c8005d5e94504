package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type watchListClient struct{ unsupported bool }

func (c watchListClient) IsWatchListSemanticsUnSupported() bool { return c.unsupported }

func TestToListWatcherWithWatchListSemantics(t *testing.T) {
	lw := &ListWatch{}
	type semantics interface{ IsWatchListSemanticsUnSupported() bool }
	assert.True(t, ToListWatcherWithWatchListSemantics(lw, watchListClient{true}).(semantics).IsWatchListSemanticsUnSupported())
	assert.False(t, ToListWatcherWithWatchListSemantics(lw, watchListClient{false}).(semantics).IsWatchListSemanticsUnSupported())
	assert.False(t, ToListWatcherWithWatchListSemantics(lw, struct{}{}).(semantics).IsWatchListSemanticsUnSupported(),
		"a client that says nothing is assumed to support watch-list")
}
