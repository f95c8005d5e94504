module example.com/fanoutimports

go 1.26
