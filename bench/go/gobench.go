// Benchmarks of a cgo-linked (so dynamically linked) Go program, for
// bench/b_rewrite.sh.  Go makes its own syscall instructions: under
// interposition every call goes through the catch-all.
//
//	gobench write N [R]    os.File.Write of 1 byte to /dev/null, N times,
//	                       R rounds (7): prints the median ns per call
//	gobench getppid N [R]  syscall.Getppid, the same
//	gobench serve FILE     an HTTP server on 127.0.0.1 (port written to
//	                       FILE) answering every request with 13 bytes
//	gobench load PORT N C  N GET requests over C keep-alive connections;
//	                       prints requests per second
package main

// #include <unistd.h>
import "C"

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func median(f func(n int), n, rounds int) float64 {
	t := make([]float64, rounds)
	for r := range t {
		t0 := time.Now()
		f(n)
		t[r] = float64(time.Since(t0).Nanoseconds()) / float64(n)
	}
	sort.Float64s(t)
	return t[rounds/2]
}

func main() {
	_ = C.getpid() // linked with libc: dynamically linked
	if len(os.Args) < 3 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "write", "getppid":
		n, _ := strconv.Atoi(os.Args[2])
		rounds := 7
		if len(os.Args) > 3 {
			rounds, _ = strconv.Atoi(os.Args[3])
		}
		if rounds < 1 {
			os.Exit(2)
		}
		f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
		if err != nil {
			os.Exit(1)
		}
		b := []byte("x")
		fn := func(n int) {
			for i := 0; i < n; i++ {
				syscall.Getppid()
			}
		}
		if os.Args[1] == "write" {
			fn = func(n int) {
				for i := 0; i < n; i++ {
					f.Write(b)
				}
			}
		}
		fn(n) // warm up: the sites trap once here
		fmt.Printf("%.1f\n", median(fn, n, rounds))
	case "serve":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(1)
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		os.WriteFile(os.Args[2]+".tmp", []byte(port), 0600)
		os.Rename(os.Args[2]+".tmp", os.Args[2])
		http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello, world\n")
		}))
	case "load":
		n, _ := strconv.Atoi(os.Args[3])
		c, _ := strconv.Atoi(os.Args[4])
		url := "http://127.0.0.1:" + os.Args[2] + "/"
		tr := &http.Transport{MaxIdleConnsPerHost: c}
		cl := &http.Client{Transport: tr}
		var wg sync.WaitGroup
		var failed int64
		var mu sync.Mutex
		t0 := time.Now()
		for k := 0; k < c; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < n/c; i++ {
					resp, err := cl.Get(url)
					if err == nil {
						_, err = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					if err != nil {
						mu.Lock()
						failed++
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if failed > 0 {
			fmt.Fprintf(os.Stderr, "%d requests failed\n", failed)
			os.Exit(1)
		}
		fmt.Printf("%.0f\n", float64(n/c*c)/time.Since(t0).Seconds())
	default:
		os.Exit(2)
	}
}
