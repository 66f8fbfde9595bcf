#!/bin/sh
# icons.sh renders the web client's PNG icons from web/static/icon.svg with
# headless Chromium: icon-192.png and icon-512.png as the SVG is (rounded,
# transparent corners), icon-maskable-512.png and apple-touch-icon.png
# (180) on a full square of the icon's blue with the icon in the middle
# 80%, the safe zone of a maskable icon (a circle of 40% radius), since
# phones cut their own shape out of it. Run it from the repository root
# after icon.svg changes, and commit the PNGs.
set -eu
CHROMIUM=${CHROMIUM:-chromium}
out=web/static
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
svg=$(cat "$out/icon.svg")

render() { # render NAME SIZE INSET BACKGROUND
	cat >"$tmp/page.html" <<HTML
<!doctype html><meta charset="utf-8">
<style>html,body{margin:0;background:$4}svg{display:block;position:absolute;left:$3%;top:$3%;width:calc(100% - 2 * $3%);height:calc(100% - 2 * $3%)}</style>
$svg
HTML
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
		--default-background-color=00000000 --window-size="$2,$2" \
		--screenshot="$tmp/out.png" "file://$tmp/page.html" >/dev/null 2>&1
	mv "$tmp/out.png" "$out/$1"
}

render icon-192.png 192 0 transparent
render icon-512.png 512 0 transparent
render icon-maskable-512.png 512 10 '#2458c6'
render apple-touch-icon.png 180 10 '#2458c6'
