-- Varied visitors for wrk: each request comes from one of several browsers, languages and referring
-- sites, so the visitor side sees many different clicks (up to ~3,000 combinations of recorded traits
-- a second) instead of one repeated visitor. The requests are built once, in init, and sent in turn,
-- so wrk spends no more per request than with fixed headers.
local agents = {
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
}
local languages = { "en-US,en;q=0.9", "en-GB,en;q=0.8", "fr-FR,fr;q=0.9,en;q=0.5", "de-DE,de;q=0.9", "es-ES,es;q=0.9", "pt-BR,pt;q=0.9", "ja-JP,ja;q=0.9", "it-IT,it;q=0.8", "nl-NL,nl;q=0.9", "pl-PL,pl;q=0.9" }
local referrers = { "" }
for i = 1, 24 do referrers[#referrers + 1] = "https://site" .. i .. ".example/page?id=" .. i end

local requests = {}
local next_index = 0

function init(args)
  math.randomseed(12345)
  for i = 1, 997 do
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["User-Agent"] = agents[math.random(#agents)]
    headers["Accept-Language"] = languages[math.random(#languages)]
    local referrer = referrers[math.random(#referrers)]
    if referrer ~= "" then headers["Referer"] = referrer end
    -- A script that loads this one (proxied-visitors.lua) may add its own headers to each visitor.
    if more_headers then more_headers(headers) end
    requests[i] = wrk.format(nil, nil, headers)
  end
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end
