// Fills in warning.html from ?url= (the blocked URL) and ?match= (the list entry it matched),
// as text only, and says what kind of entry that is.
const params = new URLSearchParams(location.search);
const url = params.get('url') ?? '';
const match = params.get('match') ?? '';

// An entry is host/path: path `/` is the whole site, a path ending in `/` a folder, any other one page.
function scopeOf(entry) {
  const slash = entry.indexOf('/');
  if (slash < 0) return '';
  const host = entry.slice(0, slash);
  const path = entry.slice(slash);
  if (path === '/') return `The whole site ${host} is listed, with its subdomains.`;
  if (path.endsWith('/')) return `Everything under the folder ${path} of ${host} (and its subdomains) is listed.`;
  return 'This page is listed.';
}

document.getElementById('url').textContent = url;
document.getElementById('match').textContent = match || '(unknown)';
document.getElementById('scope').textContent = scopeOf(match);
document.getElementById('back').addEventListener('click', () => history.back());
