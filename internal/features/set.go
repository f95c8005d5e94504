package features

// Set overrides a gate for the rest of the process, as a program that sets
// client-go's gate in code expects (contrib/clientgo's
// FollowClientGoFeatureGates calls it). A later Set replaces the value;
// Unset returns the gate to the environment and fanout's default.
func Set(name string, value bool) {
	mu.Lock()
	defer mu.Unlock()
	overrides[name] = value
}

// Unset removes Set's override of a gate.
func Unset(name string) {
	mu.Lock()
	defer mu.Unlock()
	delete(overrides, name)
}
