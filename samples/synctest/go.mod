module example.com/synctestcases

go 1.26
