module example.com/golden/typeid-mixed

go 1.26
