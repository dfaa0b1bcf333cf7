// The browser's dialogs and reload, in one object that tests can replace.
export const page = {
  reload: () => window.location.reload(),
  alert: (message: string) => window.alert(message),
  confirm: (message: string) => window.confirm(message),
}
