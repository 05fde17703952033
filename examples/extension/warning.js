// Fills in warning.html: the blocked URL (from ?url=) and its hostname, shown as text only.
const url = new URLSearchParams(location.search).get('url') ?? '';
let hostname = '';
try {
  hostname = new URL(url).hostname.replace(/\.$/, '');
} catch {
  hostname = '(not a valid URL)';
}
document.getElementById('url').textContent = url;
document.getElementById('hostname').textContent = hostname;
document.getElementById('back').addEventListener('click', () => history.back());
