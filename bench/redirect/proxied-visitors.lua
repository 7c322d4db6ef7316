-- Varied visitors behind a reverse proxy, for wrk: as varied-visitors.lua, and each request carries the
-- X-Forwarded-For a proxy such as Caddy adds, one of 997 client addresses, three in five IPv6 (a real
-- site's share is 40–60 %), so the visitor side parses a forwarded address and groups it (CONTRACT §15)
-- on every visit. The server must trust the loopback proxy (TRUST_PROXY=loopback).
local agents = {
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
}
local languages = { "en-US,en;q=0.9", "fr-FR,fr;q=0.9,en;q=0.5", "de-DE,de;q=0.9", "ja-JP,ja;q=0.9" }

local requests = {}
local next_index = 0

function init(args)
  math.randomseed(12345)
  for i = 1, 997 do
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["User-Agent"] = agents[math.random(#agents)]
    headers["Accept-Language"] = languages[math.random(#languages)]
    if math.random(5) <= 3 then
      headers["X-Forwarded-For"] = string.format("2001:db8:%x:%x:%x:%x:%x:%x", math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535))
    else
      headers["X-Forwarded-For"] = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
    end
    requests[i] = wrk.format(nil, nil, headers)
  end
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end
