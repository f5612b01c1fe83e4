module notifwait/tests/go

go 1.19
