module example.com/clusteragent

go 1.19
