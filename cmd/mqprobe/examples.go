package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are each command's --help examples, by command path; a test
// parses every line against the command's flags, so they cannot drift.
var examples = map[string][]string{
	"mqprobe": {
		"mqprobe run",
		"mqprobe send produce --queue DEV.QUEUE.1 --count 10",
	},
	"mqprobe run": {
		"mqprobe run",
		"mqprobe run --addr 127.0.0.1:8081",
		"mqprobe run --config configs/aws.yaml",
	},
	"mqprobe send": {
		"mqprobe send produce --queue DEV.QUEUE.1 --count 100 --size 2KiB",
		"mqprobe send consume --queue DEV.QUEUE.1 --max-messages 10 --wait-seconds 0",
	},
	"mqprobe send produce": {
		"mqprobe send produce --qmgr QM1 --queue DEV.QUEUE.1 --count 100 --size 2KiB --key order-42",
		"mqprobe send produce --target-ref dev-qm1 --count 1000 --rate 200 --wait",
		"mqprobe send produce --queue DEV.QUEUE.1 --payload template --template 'order {{seq}}' --persistent",
		"mqprobe send produce --queue DEV.QUEUE.1 --count 5 --query result.enqueued",
	},
	"mqprobe send consume": {
		"mqprobe send consume --queue DEV.QUEUE.1 --max-messages 10 --wait-seconds 5",
		"mqprobe send consume --queue DEV.QUEUE.1 --browse --max-messages 3 --include-payloads -o yaml",
	},
	"mqprobe send depth": {
		"mqprobe send depth --queue DEV.QUEUE.1",
		"mqprobe send depth --queue DEV.QUEUE.1 --max-depth-share 0.8 --max-oldest-age 300 --query result.verdict",
		"mqprobe send depth --target-ref dev-qm1 --query result.currentDepth",
	},
	"mqprobe send redrive": {
		"mqprobe send redrive --queue DEV.DEAD.LETTER.QUEUE --dry-run",
		"mqprobe send redrive --queue DEV.DEAD.LETTER.QUEUE --reason MQRC_Q_FULL --original-queue 'DEV.*' --wait",
	},
	"mqprobe send connection-test": {
		"mqprobe send connection-test --qmgr QM1",
	},
	"mqprobe send test": {
		"mqprobe send test --queue DEV.QUEUE.1 --duration 30s --rate 100 --wait",
		"mqprobe send test --queue DEV.QUEUE.1 --count 500 --size 1KiB --reply-queue DEV.QUEUE.2",
	},
	"mqprobe send status": {
		"mqprobe send status PRODUCE order-42",
		"mqprobe send status CONSUME k1 -o json --query status",
	},
	"mqprobe store": {
		"mqprobe store init",
		"mqprobe store list --status IN_PROGRESS",
	},
	"mqprobe store init": {
		"mqprobe store init --config configs/aws.yaml",
	},
	"mqprobe store get": {
		"mqprobe store get PRODUCE order-42",
	},
	"mqprobe store list": {
		"mqprobe store list --operation PRODUCE --status COMPLETED --limit 20",
		"mqprobe store list --older-than 24h",
	},
	"mqprobe store evict": {
		"mqprobe store evict PRODUCE order-42",
		"mqprobe store evict TEST t-1 --force",
	},
	"mqprobe config": {
		"mqprobe config print",
	},
	"mqprobe config print": {
		"mqprobe config print --config configs/aws.yaml",
	},
	"mqprobe version": {
		"mqprobe version",
	},
	"mqprobe health": {
		"mqprobe health",
		"mqprobe health --live --addr 127.0.0.1:8081",
	},
	"mqprobe doctor": {
		"mqprobe doctor --config configs/aws.yaml",
	},
	"mqprobe completion": {
		"mqprobe completion bash > /etc/bash_completion.d/mqprobe",
	},
	"mqprobe completion bash": {
		"source <(mqprobe completion bash)",
	},
	"mqprobe completion zsh": {
		"mqprobe completion zsh > \"${fpath[1]}/_mqprobe\"",
	},
	"mqprobe completion fish": {
		"mqprobe completion fish > ~/.config/fish/completions/mqprobe.fish",
	},
	"mqprobe completion powershell": {
		"mqprobe completion powershell | Out-String | Invoke-Expression",
	},
}

// addExamples sets the Example of cmd and of every command below it.
func addExamples(cmd *cobra.Command) {
	if lines, ok := examples[cmd.CommandPath()]; ok {
		cmd.Example = "  " + strings.Join(lines, "\n  ")
	}
	for _, c := range cmd.Commands() {
		addExamples(c)
	}
}
