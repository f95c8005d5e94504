package informers

import (
	"k8s.io/client-go/informers/admissionregistration"
	"k8s.io/client-go/informers/apiserverinternal"
	"k8s.io/client-go/informers/apps"
	"k8s.io/client-go/informers/autoscaling"
	"k8s.io/client-go/informers/batch"
	"k8s.io/client-go/informers/certificates"
	"k8s.io/client-go/informers/coordination"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/informers/discovery"
	"k8s.io/client-go/informers/events"
	"k8s.io/client-go/informers/extensions"
	"k8s.io/client-go/informers/flowcontrol"
	"k8s.io/client-go/informers/networking"
	"k8s.io/client-go/informers/node"
	"k8s.io/client-go/informers/policy"
	"k8s.io/client-go/informers/rbac"
	"k8s.io/client-go/informers/resource"
	"k8s.io/client-go/informers/scheduling"
	"k8s.io/client-go/informers/storage"
	"k8s.io/client-go/informers/storagemigration"
)

// The group accessors are client-go's generated groups, built on this
// factory so that their informers come from InformerFor.

// Admissionregistration returns the admissionregistration group's informers.
func (f *factory) Admissionregistration() admissionregistration.Interface {
	return admissionregistration.New(f, f.options.namespace, f.options.tweak)
}

// Internal returns the apiserverinternal group's informers.
func (f *factory) Internal() apiserverinternal.Interface {
	return apiserverinternal.New(f, f.options.namespace, f.options.tweak)
}

// Apps returns the apps group's informers.
func (f *factory) Apps() apps.Interface { return apps.New(f, f.options.namespace, f.options.tweak) }

// Autoscaling returns the autoscaling group's informers.
func (f *factory) Autoscaling() autoscaling.Interface {
	return autoscaling.New(f, f.options.namespace, f.options.tweak)
}

// Batch returns the batch group's informers.
func (f *factory) Batch() batch.Interface { return batch.New(f, f.options.namespace, f.options.tweak) }

// Certificates returns the certificates group's informers.
func (f *factory) Certificates() certificates.Interface {
	return certificates.New(f, f.options.namespace, f.options.tweak)
}

// Coordination returns the coordination group's informers.
func (f *factory) Coordination() coordination.Interface {
	return coordination.New(f, f.options.namespace, f.options.tweak)
}

// Core returns the core group's informers.
func (f *factory) Core() core.Interface { return core.New(f, f.options.namespace, f.options.tweak) }

// Discovery returns the discovery group's informers.
func (f *factory) Discovery() discovery.Interface {
	return discovery.New(f, f.options.namespace, f.options.tweak)
}

// Events returns the events group's informers.
func (f *factory) Events() events.Interface {
	return events.New(f, f.options.namespace, f.options.tweak)
}

// Extensions returns the extensions group's informers.
func (f *factory) Extensions() extensions.Interface {
	return extensions.New(f, f.options.namespace, f.options.tweak)
}

// Flowcontrol returns the flowcontrol group's informers.
func (f *factory) Flowcontrol() flowcontrol.Interface {
	return flowcontrol.New(f, f.options.namespace, f.options.tweak)
}

// Networking returns the networking group's informers.
func (f *factory) Networking() networking.Interface {
	return networking.New(f, f.options.namespace, f.options.tweak)
}

// Node returns the node group's informers.
func (f *factory) Node() node.Interface { return node.New(f, f.options.namespace, f.options.tweak) }

// Policy returns the policy group's informers.
func (f *factory) Policy() policy.Interface {
	return policy.New(f, f.options.namespace, f.options.tweak)
}

// Rbac returns the rbac group's informers.
func (f *factory) Rbac() rbac.Interface { return rbac.New(f, f.options.namespace, f.options.tweak) }

// Resource returns the resource group's informers.
func (f *factory) Resource() resource.Interface {
	return resource.New(f, f.options.namespace, f.options.tweak)
}

// Scheduling returns the scheduling group's informers.
func (f *factory) Scheduling() scheduling.Interface {
	return scheduling.New(f, f.options.namespace, f.options.tweak)
}

// Storage returns the storage group's informers.
func (f *factory) Storage() storage.Interface {
	return storage.New(f, f.options.namespace, f.options.tweak)
}

// Storagemigration returns the storagemigration group's informers.
func (f *factory) Storagemigration() storagemigration.Interface {
	return storagemigration.New(f, f.options.namespace, f.options.tweak)
}
