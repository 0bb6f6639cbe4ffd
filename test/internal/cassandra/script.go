package cassandra

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// ScriptPath is the path of scripts/cassandra.sh: $PARTITA_CASSANDRA_SCRIPT
// when set, else found from the working directory upwards (go test runs in
// the package's directory inside the module), else from this file's
// source path.
func ScriptPath() (string, error) {
	if p := os.Getenv("PARTITA_CASSANDRA_SCRIPT"); p != "" {
		return p, nil
	}
	const rel = "scripts/cassandra.sh"
	if dir, err := os.Getwd(); err == nil {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if p := filepath.Join(dir, rel); fileExists(p) {
					return p, nil
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if p := filepath.Join(filepath.Dir(file), "..", "..", "..", rel); fileExists(p) {
			return p, nil
		}
	}
	return "", errors.New("cannot find scripts/cassandra.sh (set PARTITA_CASSANDRA_SCRIPT)")
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

var install struct {
	once sync.Once
	err  error
}

// Install runs `scripts/cassandra.sh install` once per process. When the
// jars are in the cache already (CI installs them before the tests) it
// takes a fraction of a second; otherwise it downloads them with Maven.
func Install() error {
	install.once.Do(func() {
		script, err := ScriptPath()
		if err != nil {
			install.err = err
			return
		}
		var out bytes.Buffer
		cmd := exec.Command("bash", script, "install")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			install.err = fmt.Errorf("%s install: %v\n%s", script, err, out.Bytes())
		}
	})
	return install.err
}
