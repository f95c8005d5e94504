module example.com/aliased

go 1.26
