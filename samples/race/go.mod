module example.com/sessioncache

go 1.19
