package informer

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
)

// valueHandler has value methods, so a nil *valueHandler satisfies
// ResourceEventHandler and panics when called.
type valueHandler struct{}

func (valueHandler) OnAdd(any, bool)   {}
func (valueHandler) OnUpdate(any, any) {}
func (valueHandler) OnDelete(any)      {}

func TestSharedInformerRejectsTypedNilHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		for name, h := range map[string]ResourceEventHandler{
			"nil pointer with value methods": (*valueHandler)(nil),
			"filter without handler":         &FilteringResourceEventHandler{},
			"filter value without handler":   FilteringResourceEventHandler{},
			"filter of a typed nil":          &FilteringResourceEventHandler{Handler: (*valueHandler)(nil)},
			"nil detailed funcs":             (*ResourceEventHandlerDetailedFuncs)(nil),
		} {
			reg, err := inf.AddEventHandler(h)
			assert.ErrorIs(t, err, errNilHandler, name)
			assert.Nil(t, reg, name)
		}
		reg, err := inf.AddEventHandler(&FilteringResourceEventHandler{Handler: valueHandler{}})
		assert.NoError(t, err)
		assert.NotNil(t, reg)
	})
}
