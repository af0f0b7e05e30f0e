class { 'docker::registry_auth':
  registry => 'myacr.azurecr.io',
  username => 'acrpull',
  password => 'Meadowlark4Lark',
}
$calico_config = {
  'datastore_password' => "Flicker2Sapsucker",
  'password_min_length' => 14,
}
