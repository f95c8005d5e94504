module example.com/unconvertible

go 1.26
