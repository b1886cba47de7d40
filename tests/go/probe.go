// A cgo-linked Go program for libsecfilter.so's end-to-end tests (Go makes
// its own syscall instructions: every call it makes is one the catch-all
// must see).  Linking cgo makes it dynamically linked, so LD_PRELOAD
// reaches it.
//
//	probe work    files, goroutines, timers, signals, a child process and
//	              an HTTP server and client on 127.0.0.1; prints "go ok"
//	probe getppid N   syscall.Getuid() (which goes through the same
//	              syscall site), then N syscall.Getppid(); "getppid ok"
package main

// #include <unistd.h>
import "C"

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func check(what string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		os.Exit(1)
	}
}

func work() {
	if int(C.getppid()) != os.Getppid() {
		check("cgo getppid", fmt.Errorf("differs from syscall.Getppid"))
	}
	dir, err := os.MkdirTemp("", "secfilter-go")
	check("mkdirtemp", err)
	defer os.RemoveAll(dir)

	// files, from many goroutines
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := filepath.Join(dir, strconv.Itoa(i))
			for k := 0; k < 50; k++ {
				check("write", os.WriteFile(p, []byte(strconv.Itoa(k)), 0600))
				b, err := os.ReadFile(p)
				check("read", err)
				if string(b) != strconv.Itoa(k) {
					check("read", fmt.Errorf("got %q", b))
				}
			}
		}(i)
	}
	wg.Wait()
	ents, err := os.ReadDir(dir)
	check("readdir", err)
	if len(ents) != 8 {
		check("readdir", fmt.Errorf("%d entries", len(ents)))
	}

	// timers and a signal to ourselves
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	check("kill", syscall.Kill(os.Getpid(), syscall.SIGUSR1))
	select {
	case <-sig:
	case <-time.After(10 * time.Second):
		check("signal", fmt.Errorf("not delivered"))
	}
	time.Sleep(20 * time.Millisecond)

	// a child process
	out, err := exec.Command("/bin/echo", "child ran").Output()
	check("exec", err)
	if string(out) != "child ran\n" {
		check("exec", fmt.Errorf("got %q", out))
	}

	// an HTTP server and client on the loopback
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check("listen", err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello "+r.URL.Path)
	})}
	go srv.Serve(ln)
	for i := 0; i < 20; i++ {
		resp, err := http.Get("http://" + ln.Addr().String() + "/" + strconv.Itoa(i))
		check("get", err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		check("body", err)
		if string(b) != "hello /"+strconv.Itoa(i) {
			check("body", fmt.Errorf("got %q", b))
		}
	}
	srv.Close()
	fmt.Println("go ok")
}

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "work":
		work()
	case "getppid":
		n, _ := strconv.Atoi(os.Args[2])
		if syscall.Getuid() != os.Getuid() {
			check("getuid", fmt.Errorf("wrong"))
		}
		for i := 0; i < n; i++ {
			if syscall.Getppid() != os.Getppid() {
				check("getppid", fmt.Errorf("wrong"))
			}
		}
		fmt.Println("getppid ok")
	default:
		os.Exit(2)
	}
}
