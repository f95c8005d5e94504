package informers

// ObjectFor returns a new object of a resource's type, for tests.
var ObjectFor = objectFor
