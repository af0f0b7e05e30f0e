package formats

import (
	"fmt"
	"strings"
	"time"

	"github.com/wincni/diag/snapshot"
)

// ParseKubePods parses a PodList, a single Pod or a bare array of Pods.
func ParseKubePods(data []byte) ([]*snapshot.Pod, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.Pod { return podOf(o) })
}

func podOf(o obj) *snapshot.Pod {
	meta, spec, status := o.child("metadata"), o.child("spec"), o.child("status")
	p := &snapshot.Pod{Namespace: meta.str("namespace"), Name: meta.str("name"), NodeName: spec.str("nodeName"), Phase: status.str("phase"),
		Deleting: meta.str("deletionTimestamp") != ""}
	p.HostNetwork, _ = spec.boolean("hostNetwork")
	p.StartTime, _ = time.Parse(time.RFC3339, status.str("startTime"))
	for _, ip := range status.list("podIPs") {
		if a := snapshot.ParseAddr(ip.str("ip")); a.IsValid() {
			p.PodIPs = append(p.PodIPs, a)
		}
	}
	if len(p.PodIPs) == 0 {
		if a := snapshot.ParseAddr(status.str("podIP")); a.IsValid() {
			p.PodIPs = append(p.PodIPs, a)
		}
	}
	for _, cs := range status.list("containerStatuses") {
		waiting := cs.child("state").child("waiting").str("reason")
		if strings.EqualFold(waiting, "CrashLoopBackOff") && p.CrashLooping == "" {
			p.CrashLooping = cs.str("name")
		}
		n, _ := cs.num("restartCount")
		if n <= p.Restarts && p.RestartedName != "" {
			continue
		}
		p.Restarts, p.RestartedName, p.Waiting = n, cs.str("name"), waiting
		p.LastExit, p.LastExitAt = "", time.Time{}
		if t := cs.child("lastState").child("terminated"); t != nil {
			code, _ := t.num("exitCode")
			p.LastExit = fmt.Sprintf("%s (exit code %d)", t.str("reason"), code)
			p.LastExitAt, _ = time.Parse(time.RFC3339, t.str("finishedAt"))
		}
	}
	for _, c := range spec.list("containers") {
		for _, port := range c.list("ports") {
			hp, _ := port.num("hostPort")
			if hp <= 0 {
				continue
			}
			cp, _ := port.num("containerPort")
			proto := strings.ToUpper(port.str("protocol"))
			if proto == "" {
				proto = "TCP"
			}
			p.HostPorts = append(p.HostPorts, snapshot.HostPort{Container: c.str("name"), Protocol: proto, ContainerPort: cp, HostPort: hp})
		}
	}
	return p
}
