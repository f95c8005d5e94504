module example.com/dotblank

go 1.26
