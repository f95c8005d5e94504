module example.com/metadata

go 1.26
