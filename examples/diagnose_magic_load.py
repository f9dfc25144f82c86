# %load_ext inplace_doctor
