package features

// Set overrides a gate for the rest of the process, as a program that sets
// client-go's gate in code expects (contrib/clientgo's
// FollowClientGoFeatureGates calls it). Unlike SetForTesting there is
// nothing to restore: a later Set replaces the value.
func Set(name string, value bool) {
	mu.Lock()
	defer mu.Unlock()
	overrides[name] = value
}
