module toll-worker-go

go 1.19
