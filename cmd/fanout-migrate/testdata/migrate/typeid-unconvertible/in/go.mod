module example.com/typeid-unconvertible

go 1.26
