import { imageUrl } from '../../config.ts'
import { useUserStore } from '../../lib/session.ts'
import { logOut } from './log-out.ts'

export function LogoutButton({ onLoggedOut }: { onLoggedOut(): void }) {
  const user = useUserStore((state) => state.user)
  return (
    <button
      type="button"
      className="logout-button"
      title={user?.name}
      onClick={async () => {
        if (await logOut()) onLoggedOut()
      }}
    >
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
