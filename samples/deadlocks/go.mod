module example.com/deadlocks

go 1.19
