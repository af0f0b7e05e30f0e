# Calico for Windows configuration
$env:KUBE_NETWORK = "Calico.*"
$env:CALICO_NETWORKING_BACKEND="vxlan"
$env:NODENAME = "aksnpwin8r"
$env:CALICO_NODENAME = "winworker-tahoe3"
$env:K8S_NODE_NAME = "winworker-shasta4"
