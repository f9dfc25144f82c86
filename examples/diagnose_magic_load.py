# %load_ext inplace_doctor
import inplace_doctor

inplace_doctor.__version__
