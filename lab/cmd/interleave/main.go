// Command interleave runs commands round-robin (interleaved, so each sees the same
// machine load), each with stdin from a rotating list of files, and
// prints per command the median wall time, median user+sys CPU time and
// their ratios to the first command (hello world).
//
//	go run ./cmd/interleave -rounds N -sleep D -in 'f1,f2,...' -- NAME=CMD... ::: NAME=CMD...
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 30, "rounds")
	sleep := flag.Duration("sleep", 0, "pause between rounds")
	ins := flag.String("in", "", "stdin files per command: name=f1,f2;name2=...")
	flag.Parse()
	var names []string
	var cmds [][]string
	cur := []string{}
	for _, a := range append(flag.Args(), ":::") {
		if a == ":::" {
			if len(cur) > 0 {
				n, c, _ := strings.Cut(cur[0], "=")
				names = append(names, n)
				cmds = append(cmds, append([]string{c}, cur[1:]...))
			}
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	inputs := map[string][]string{}
	for _, part := range strings.Split(*ins, ";") {
		if n, fs, ok := strings.Cut(part, "="); ok {
			inputs[n] = strings.Split(fs, ",")
		}
	}
	wall := make([][]float64, len(cmds))
	cpu := make([][]float64, len(cmds))
	for r := 0; r < *rounds; r++ {
		if *sleep > 0 {
			time.Sleep(*sleep)
		}
		for i, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			if fs := inputs[names[i]]; len(fs) > 0 {
				f, err := os.Open(fs[r%len(fs)])
				if err != nil {
					panic(err)
				}
				cmd.Stdin = f
			}
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, names[i], err)
			}
			if f, ok := cmd.Stdin.(*os.File); ok {
				f.Close()
			}
			wall[i] = append(wall[i], float64(time.Since(t0).Microseconds())/1000)
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cpu[i] = append(cpu[i], float64(ru.Utime.Usec+ru.Stime.Usec+1e6*(ru.Utime.Sec+ru.Stime.Sec))/1000)
		}
	}
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	fmt.Printf("| command | wall p50 | × hello | CPU p50 | × hello |\n|---|---:|---:|---:|---:|\n")
	for i := range cmds {
		fmt.Printf("| %s | %.1f ms | %.1f× | %.1f ms | %.1f× |\n", names[i], med(wall[i]), med(wall[i])/med(wall[0]), med(cpu[i]), med(cpu[i])/med(cpu[0]))
	}
}
