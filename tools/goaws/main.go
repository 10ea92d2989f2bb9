// Command goaws serves the goaws SQS/SNS emulator (github.com/Admiral-Piett/goaws)
// for mqprobe's tests. Unlike goaws's own main, which listens on 0.0.0.0, it
// binds the loopback address only, and it stamps the port it really listens
// on into the emulator's queue URLs (goaws builds them from the config's Port).
// With -exit-with PID it exits once that process is gone, so a test binary
// that dies before stopping it (a timeout, a panic) leaves nothing behind.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/Admiral-Piett/goaws/app/conf"
	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/models"
	"github.com/Admiral-Piett/goaws/app/router"
	"github.com/sirupsen/logrus"
)

func main() {
	config := flag.String("config", "goaws.yaml", "goaws YAML config file")
	env := flag.String("env", "Local", "environment section of the config")
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 4100, "port to listen on")
	level := flag.String("loglevel", "warn", "goaws log level")
	owner := flag.Int("exit-with", 0, "exit when the process with this id is gone (0: never)")
	flag.Parse()
	if *owner > 0 {
		go exitWith(*owner)
	}

	lvl, err := logrus.ParseLevel(*level)
	if err != nil {
		log.Fatalf("goaws: -loglevel: %v", err)
	}
	logrus.SetLevel(lvl)

	conf.LoadYamlConfig(*config, *env)
	models.CurrentEnvironment.Port = strconv.Itoa(*port)

	// goaws makes in-flight messages visible again (and applies redrive
	// policies) only in this periodic task.
	go gosqs.PeriodicTasks(time.Second, make(chan bool))

	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	srv := &http.Server{Addr: addr, Handler: router.New(), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("goaws: listening on %s", addr)
	log.Fatal(srv.ListenAndServe())
}

// exitWith ends this process once process pid no longer exists.
func exitWith(pid int) {
	for range time.Tick(500 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			log.Printf("goaws: process %d is gone; exiting", pid)
			os.Exit(0)
		}
	}
}
