
Bxj
location/etc/passwdp