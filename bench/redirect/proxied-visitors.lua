-- Varied visitors behind a reverse proxy, for wrk: varied-visitors.lua's visitors, each request carrying
-- the X-Forwarded-For a proxy such as Caddy adds, one of 997 client addresses, three in five IPv6 (a real
-- site's share is 40–60 %), so the visitor side parses a forwarded address and groups it (CONTRACT §15)
-- on every visit. The server must trust the loopback proxy (TRUST_PROXY=loopback).
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
dofile(here .. "varied-visitors.lua")

function more_headers(headers)
  if math.random(5) <= 3 then
    headers["X-Forwarded-For"] = string.format("2001:db8:%x:%x:%x:%x:%x:%x", math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535))
  else
    headers["X-Forwarded-For"] = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
  end
end
