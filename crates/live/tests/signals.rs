//! How `softosa lab` exits after a signal (its own test process, because
//! the interruption flag is process-wide): 128 + the signal's number, as a
//! shell reports it, so SIGTERM from a supervisor is not taken for Ctrl-C.

use softosa_live::cli::interrupted_status;

#[test]
fn the_exit_status_names_the_signal_that_interrupted_the_run() {
    softosa_live::install_signal_handlers();
    assert!(!softosa_live::interrupted());
    // SAFETY: raise(3) with a signal whose handler was just installed.
    assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
    assert!(softosa_live::interrupted());
    assert_eq!(softosa_live::interrupting_signal(), Some(libc::SIGTERM));
    assert_eq!(i32::from(interrupted_status()), 128 + libc::SIGTERM);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::raise(libc::SIGHUP) }, 0);
    assert_eq!(i32::from(interrupted_status()), 128 + libc::SIGHUP);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
    assert_eq!(interrupted_status(), 130);
}
