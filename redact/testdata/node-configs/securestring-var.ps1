$p = 'Pumice8Tiller'; $s = ConvertTo-SecureString $p -AsPlainText -Force
$pw = "Coot4Valley"
$cred = [pscredential]::new('svc', (ConvertTo-SecureString -String $pw -AsPlainText -Force))
