import { imageUrl } from '../../config.ts'
import { useUserStore } from '../../lib/session-state.ts'
import { logOut } from './session.ts'

export function LogoutButton() {
  const user = useUserStore((state) => state.user)
  return (
    <button type="button" className="logout-button" title={user?.name} onClick={() => void logOut()}>
      {user?.image ? (
        <img className="avatar" src={imageUrl(user.image)} alt="" width={32} height={32} />
      ) : (
        <span className="avatar avatar-initial" aria-hidden="true">
          {user?.name.slice(0, 1) ?? '?'}
        </span>
      )}
      <span lang="en">Logout</span>
    </button>
  )
}
