module example.com/cacheonly

go 1.26
