// Fills in warning.html from ?url= (the blocked URL) and ?match= (the list entry it matched),
// as text only, and says what kind of entry that is.
const params = new URLSearchParams(location.search);
const url = params.get('url') ?? '';
const match = params.get('match') ?? '';

// An entry is host/path: path `/` is the whole site, a path ending in `/` a folder, any other one page.
// A host name's entry also covers its subdomains; an IP address (canonical: dotted decimal or [v6]) has none.
function scopeOf(entry) {
  const slash = entry.indexOf('/');
  if (slash < 0) return '';
  const host = entry.slice(0, slash);
  const path = entry.slice(slash);
  const subdomains = /^(\d+\.\d+\.\d+\.\d+|\[.*\])$/.test(host) ? '' : ' and its subdomains';
  if (path === '/') return `It lists the whole site ${host}${subdomains}.`;
  if (path.endsWith('/')) return `It lists everything under the folder ${path} of ${host}${subdomains}.`;
  return 'It lists this one page.';
}

document.getElementById('url').textContent = url;
document.getElementById('match').textContent = match || '(unknown)';
document.getElementById('scope').textContent = scopeOf(match);
document.getElementById('back').addEventListener('click', () => history.back());
