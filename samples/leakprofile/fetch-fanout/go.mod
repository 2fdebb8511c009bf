module example.com/fetchgw

go 1.26
