package realcluster

// LabelKwok marks the nodes kwok plays the kubelet for; nodes without it
// have no kubelet at all (their pods stay Pending, their deleted pods stay
// Terminating, exec to them reaches nothing).
const LabelKwok = "diag-test/kwok"

// LabelBehave on a node says how the stand-in collector behaves in its
// pods (package standin: ok, partial, fail, hang).
const LabelBehave = "diag-test/behave"

// annotationExecReady is set on a pod once its Exec object is made: kwok
// starts the pod only then, so its first exec finds its node's settings.
const annotationExecReady = "diag-test/exec-ready"

// auditPolicy logs every request's metadata, but the control plane's own
// and kwok's (which would drown diag's).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: None
  users: ["kwok", "system:apiserver", "system:kube-proxy"]
- level: None
  nonResourceURLs: ["/readyz*", "/healthz*", "/livez*", "/version", "/openapi*", "/api", "/apis*"]
- level: Metadata
`

// kwokStages are the lifecycles kwok plays: a kwok node becomes Ready with
// 127.0.0.1 as its address and kwok's server as its kubelet; a pod on it
// runs once its Exec object is there, and a deleted one goes at once (a
// kubelet that answers). Written for these tests from kwok's Stage API.
const kwokStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-ready
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - type: Ready
        status: "True"
        reason: KubeletReady
        message: kwok plays the kubelet
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      addresses:
      - type: InternalIP
        address: {{ NodeIP | Quote }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ NodePort }}
      allocatable: {cpu: "64", memory: 256Gi, pods: "1000"}
      capacity: {cpu: "64", memory: 256Gi, pods: "1000"}
      nodeInfo:
        architecture: amd64
        operatingSystem: {{ index .metadata.labels "kubernetes.io/os" | Quote }}
        kubeletVersion: v1.34.4
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-running
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ["Pending"]
    - key: '.metadata.annotations["diag-test/exec-ready"]'
      operator: Exists
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      hostIP: "127.0.0.1"
      podIP: "127.0.0.1"
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
  next:
    delete: true
`
