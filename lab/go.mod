module github.com/megagit/megagit/lab

go 1.26.8

require github.com/megagit/megagit v0.0.0

require (
	github.com/kljensen/snowball v0.10.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/megagit/megagit => ../
