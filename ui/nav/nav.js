// The sidebar's page links (ui/nav.py): one element for all of them, drawn again only when
// its data changes (another language, another page open). A plain click opens the page in
// this session, as Streamlit's own page links do: the address changes (one history entry)
// and Streamlit, told as it is when the student goes Back (popstate), runs that page with
// every control's value. A click with a modifier key, a middle click or "open in new tab"
// follows the link's address like any link.

function build(root, data) {
  root.replaceChildren();
  root.setAttribute('aria-label', data.label);
  for (const section of data.sections) {
    if (section.heading) {
      const heading = document.createElement('p');
      heading.className = 'nav-heading';
      heading.textContent = section.heading;
      root.append(heading);
    }
    const list = document.createElement('ul');
    for (const link of section.links) {
      const a = document.createElement('a');
      a.href = link.href;
      if (link.current) a.setAttribute('aria-current', 'page');
      if (link.icon) {
        const icon = document.createElement('span');
        icon.className = 'nav-icon';
        icon.setAttribute('aria-hidden', 'true');
        icon.translate = false;
        icon.textContent = link.icon;
        a.append(icon);
      }
      const title = document.createElement('span');
      title.textContent = link.title;
      a.append(title);
      const item = document.createElement('li');
      item.append(a);
      list.append(item);
    }
    root.append(list);
  }
}

export default function (component) {
  const { data, parentElement } = component;
  let root = parentElement.querySelector(':scope > nav.adlab-nav');
  if (!root) {
    root = document.createElement('nav');
    root.className = 'adlab-nav';
    root.addEventListener('click', (event) => {
      const a = event.target.closest('a[href]');
      const plain = event.button === 0 && !(event.metaKey || event.ctrlKey || event.shiftKey || event.altKey);
      if (!a || !plain || event.defaultPrevented) return;
      event.preventDefault();
      if (a.getAttribute('aria-current') === 'page') return;
      window.history.pushState(null, '', a.href);
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    });
    parentElement.append(root);
  }
  const json = JSON.stringify(data);
  if (root.drawn !== json) {
    build(root, data);
    root.drawn = json;
  }
}
