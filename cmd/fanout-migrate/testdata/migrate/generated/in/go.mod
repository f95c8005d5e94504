module example.com/bars

go 1.26
