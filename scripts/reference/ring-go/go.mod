module ring

go 1.19
