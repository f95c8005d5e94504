module example.com/factory

go 1.26
