module example.com/dynamic

go 1.26
