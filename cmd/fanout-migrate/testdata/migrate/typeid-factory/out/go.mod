module example.com/typeid-factory

go 1.26
